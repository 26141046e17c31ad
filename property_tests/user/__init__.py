"""The tests `collapse-verify new` writes for users' conjectures (one per conjecture; each reads the predicates from
the registered conjecture)."""
