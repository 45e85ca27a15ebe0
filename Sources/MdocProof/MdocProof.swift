// MdocProof: see DESIGN.md, "Architecture".
