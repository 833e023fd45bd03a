print("trigger-bench")
