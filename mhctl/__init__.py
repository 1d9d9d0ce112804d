"""The `mhctl` command line: administration, retain/recall, export/import, and the MCP server."""
