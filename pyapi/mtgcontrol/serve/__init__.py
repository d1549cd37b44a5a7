"""``mtgcontrol serve``: the rules as a web service (docs/serve.md).

``command`` (the command line), ``app`` (the endpoints), ``pool`` (the judging
processes), ``tasks`` (what those processes run), ``contract`` (OpenAPI, the catalog
as data), ``server`` (uvicorn).  Only ``tasks`` is loaded in the worker processes, and
it needs nothing of the web stack.
"""
