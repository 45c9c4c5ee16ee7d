"""An old copy, outside the packaged tree."""
