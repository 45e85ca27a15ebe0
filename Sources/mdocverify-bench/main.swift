print("mdocverify-bench")
