// One import for apps: HearthKit brings the API's shapes, the home model and HAP's values with it. HAPTypes is
// re-exported because the model's own fields are its types (`HAPValue`, `HAPUUID`, `Format`, …): an app that
// depends on HearthKit alone can write `.int(40)` or name a characteristic type without a second dependency.
@_exported import HAPTypes
@_exported import HearthAPI
@_exported import HomeGraph
