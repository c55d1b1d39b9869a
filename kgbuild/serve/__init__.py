"""Serving a snapshot over HTTP: ``kgbuild serve``'s JSON API (``server.py``), its connection
limits and admission control (``connections.py``, ``gate.py``), as-of years opened off the event
loop (``years.py``) and the explorer a curator works in (``explorer/``). It calls ``query/`` for
answers and ``search/`` and ``store/`` for what a page shows; nothing below it imports it, so
answering never depends on how it is served."""
