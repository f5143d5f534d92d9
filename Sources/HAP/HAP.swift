/// The HomeKit Accessory Protocol core: codecs and state machines shared by both roles, with no I/O.
public enum HAPCore {}
