// MdocVerification: see DESIGN.md, "Architecture".
