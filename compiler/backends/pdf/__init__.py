"""Our own small PDF writer: objects, streams, embedded TrueType subsets, display-list content.

Why not reportlab here: a face's content stream must not depend on the document it lands in, so
that it can be cached and reused byte for byte on the next build. reportlab numbers TrueType
subset glyphs in the order a document first uses them; we write text as glyph ids of the whole
font (Identity-H), so the same face always gives the same bytes. Fonts are subset keeping the
glyph ids (ttf.py).
"""
