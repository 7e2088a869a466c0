package store

// TSVector exposes tsVector to the tests of package store_test.
var TSVector = tsVector
