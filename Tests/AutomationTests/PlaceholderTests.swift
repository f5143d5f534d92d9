import Automation
import Testing

@Test func automationModuleLinks() {
    #expect(AutomationVersion.decisions >= 1)
}
