import Testing

@Test func HAPAccessoryServerTestsBuild() {}
