// MdocSamples: see DESIGN.md, "Architecture".
