// MdocReports: see DESIGN.md, "Architecture".
