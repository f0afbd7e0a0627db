"""Read-only tools over the documents folder: search_files, read_file, list_files."""
