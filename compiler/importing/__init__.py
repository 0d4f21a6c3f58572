"""The way back: VASSAL saves and modules read into countermix data.

`archive` opens a module or save as untrusted data (zip-slip, bombs, XML entities refused),
`commands` decodes a save's command stream, `pieces` a piece's traits, `saves` a whole save.
"""
