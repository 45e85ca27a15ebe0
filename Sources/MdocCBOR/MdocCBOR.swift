// MdocCBOR: see DESIGN.md, "Architecture".
