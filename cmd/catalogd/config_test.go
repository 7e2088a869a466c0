package main

import "testing"

// TestConfigDefaultCliVersion checks that /config names the DataHub CLI
// version that works with the server, as DataHub's does, and that
// UI_INGESTION_DEFAULT_CLI_VERSION overrides it as it does in DataHub.
func TestConfigDefaultCliVersion(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"default", nil, "0.14.1"},
		{"environment override", map[string]string{"UI_INGESTION_DEFAULT_CLI_VERSION": "0.15.0.5"}, "0.15.0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServerEnv(t, tt.env)
			cfg := decode(t, srv.mustDo(t, 200, "GET", "/config", nil))
			mi, _ := cfg["managedIngestion"].(map[string]any)
			if got := mi["defaultCliVersion"]; got != tt.want {
				t.Errorf("managedIngestion.defaultCliVersion = %#v, want %q", got, tt.want)
			}
			// The CLI version is the release the server reports as its own.
			if tt.env == nil {
				v, _ := cfg["versions"].(map[string]any)["acryldata/datahub"].(map[string]any)
				if v["version"] != "v"+tt.want {
					t.Errorf("versions.acryldata/datahub.version = %v, want v%s", v["version"], tt.want)
				}
			}
		})
	}
}
