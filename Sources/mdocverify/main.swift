print("mdocverify")
