# Timing constraints for switch_engine (verilog/switch_engine.v), any configuration.
# The engine is fully synchronous to `clock`; `reset` is synchronous. Every output except
# pkt_ready / cfg_ready comes straight from a register; those two are one AND gate from
# cfg_valid and a register, so budget them as a combinational path.
# The target is a 1 GHz switch pipeline clock; scale `period` for your process.
set period 1.000
create_clock -name clock -period $period [get_ports clock]
set_input_delay  -clock clock [expr {0.4 * $period}] [remove_from_collection [all_inputs] [get_ports clock]]
set_output_delay -clock clock [expr {0.4 * $period}] [all_outputs]
set_false_path -from [get_ports reset] -to [get_ports {pkt_ready cfg_ready}]
