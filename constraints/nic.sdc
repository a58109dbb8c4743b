# Timing constraints for nic (verilog/nic.v and the modules it requires), any configuration.
# The NIC is fully synchronous to `clock`; `reset` is synchronous. Every output comes from a
# register or from the sequencer state alone, so outputs need no combinational budget: a NIC
# can be wired to another, or to a link, with no path between them.
# The target is a 250 MHz NIC user-logic clock; scale `period` for your process or FPGA.
set period 4.000
create_clock -name clock -period $period [get_ports clock]
set_input_delay  -clock clock [expr {0.4 * $period}] [remove_from_collection [all_inputs] [get_ports clock]]
set_output_delay -clock clock [expr {0.4 * $period}] [all_outputs]
