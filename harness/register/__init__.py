"""The laboratory's register of certificates (docs/register.md).

A real database (SQLite by default, PostgreSQL through a SQLAlchemy URL) holds every
report chcert numbered: a signed PASS as a certificate, anything else as a test record;
their builds and artifacts; and a status history changed only by appended events, each
carrying the hash of the one before. `records` are the typed values that leave the
package; `database` opens and migrates; `chain` hashes; `reports` reads a report PDF
into a record; `store` is every operation, each one transaction.
"""
