"""The real-failure benchmark's scorer (corpus/real/README.md): `python -m realeval`."""
