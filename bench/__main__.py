"""``python -m bench``: run every benchmark and print its figures beside its target."""

from bench import engine

if __name__ == "__main__":
    engine.run()
