"""The preview page: build/<game>/index.html, every face, scenario, sheet page and chart of a
build on one static page (no server, no network), with links to the data's file:line."""
