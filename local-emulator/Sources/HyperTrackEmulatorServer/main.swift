print("hypertrack-emulator")
