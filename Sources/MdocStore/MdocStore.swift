// MdocStore: see DESIGN.md, "Architecture".
