// MdocPipeline: see DESIGN.md, "Architecture".
