// MdocImaging: see DESIGN.md, "Architecture".
