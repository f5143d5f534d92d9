/// Placeholder until the DNS-SD code lands.
enum DNSSDPlaceholder {}
