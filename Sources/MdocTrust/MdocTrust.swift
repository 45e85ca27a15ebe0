// MdocTrust: see DESIGN.md, "Architecture".
