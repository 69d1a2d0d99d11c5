package neuralnmf

// FileHeader exports the model file's header to the external tests that
// craft files (file_test.go).
type FileHeader = fileHeader
