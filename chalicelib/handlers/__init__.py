"""Lambda entry points, one module per function, each importing only what it runs.

The packaged template names these as the functions' `Handler`s (infra/template.json),
so a cold start pays for its own handler's imports, not for every view of the API.
`app.py` calls the same functions from its Chalice decorators, which is how the local
stack and the tests reach them.
"""
