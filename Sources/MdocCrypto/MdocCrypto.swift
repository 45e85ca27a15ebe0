// MdocCrypto: see DESIGN.md, "Architecture".
