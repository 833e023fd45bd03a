print("ridesharing")
