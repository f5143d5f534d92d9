import Testing

@Test func SimulatorTestsBuild() {}
