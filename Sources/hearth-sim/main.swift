print("hearth-sim")
