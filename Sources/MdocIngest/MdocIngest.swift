// MdocIngest: see DESIGN.md, "Architecture".
