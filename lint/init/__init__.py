"""``egress-lint init``: a starter declaration file written from the
manifests (``command``): what to declare (``propose``), the charts and
overlays to render (``roots``), and the text with its review comments
(``emit``)."""
