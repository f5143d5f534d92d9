/// Placeholder until the simulator lands.
enum SimulatorPlaceholder {}
