"""The course published from its stored notebooks: the static website (``make site``).

Works from a clone of the repository (it reads ``notebooks/``); rank "publish" in the package
map, above everything it reads, so nothing imports it.

    lecturekit.publish.frames   # a widget's frames at every setting of its grid
"""
