"""The bash differential test: bash itself, run in a sandbox under strace, is the oracle for
the fence's reading of terminal commands (see README.md here)."""
