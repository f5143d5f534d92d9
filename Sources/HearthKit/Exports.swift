// One import for apps: HearthKit brings the API's shapes and the home model with it.
@_exported import HearthAPI
@_exported import HomeGraph
