# Timing constraints for reduce_alu_l<lanes> (verilog/reduce_alu_l*.v with reduce_alu_lane.v),
# any lane count. Fully synchronous to `clock`, latency 1: every output is a register, every
# input goes through one stage of logic into a register.
# The target is a 250 MHz datapath clock; scale `period` for your process or FPGA.
set period 4.000
create_clock -name clock -period $period [get_ports clock]
set_input_delay  -clock clock [expr {0.4 * $period}] [remove_from_collection [all_inputs] [get_ports clock]]
set_output_delay -clock clock [expr {0.4 * $period}] [all_outputs]
