"""What a person reads in the terminal and in charts: consoles, tables fitted to the width,
comparison tables, SVG charts."""
