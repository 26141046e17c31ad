"""formal tests (see property_tests/README.md)."""
