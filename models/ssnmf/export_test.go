package ssnmf

// UnitTopicsForTest exposes unitTopics to the external tests.
var UnitTopicsForTest = unitTopics
