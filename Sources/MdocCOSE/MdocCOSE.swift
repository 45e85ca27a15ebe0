// MdocCOSE: see DESIGN.md, "Architecture".
