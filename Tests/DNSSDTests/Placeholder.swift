import Testing

@Test func DNSSDTestsBuild() {}
