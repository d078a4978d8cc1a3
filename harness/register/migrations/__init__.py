"""The register's schema migrations (Alembic): harness/register/database.py runs them."""
