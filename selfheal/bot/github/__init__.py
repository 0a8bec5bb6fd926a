"""The GitHub side: the REST client and the App's installation tokens, git plumbing (the checkout,
the commit made where no sandboxed command could write), publishing a branch and its pull request
(by git or the Git Data API), the memory branch, the progress comment, review-mode proposals, the
workflow dispatch, and the marker and inert text of what selfheal posts.

Imports of bot/ only its errors (bot/exceptions.py): never the heal service at the top, never the server.
"""
