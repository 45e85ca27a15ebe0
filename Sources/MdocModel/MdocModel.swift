// MdocModel: see DESIGN.md, "Architecture".
