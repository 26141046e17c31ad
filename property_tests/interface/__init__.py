"""interface tests (see property_tests/README.md)."""
