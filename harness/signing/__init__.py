"""Signing and verifying reports (docs/signing.md): results.json attached to the PDF,
the laboratory's key and certificate, the signature and its timestamp, and
`chcert verify`. Apart from rendering: the report draws pages, this seals them."""
