import HAP

print("hearth")
