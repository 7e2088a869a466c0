package graphql

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/catalogd/catalogd/internal/catalog"
	"github.com/catalogd/catalogd/internal/graphql/model"
)

func TestModuleParamsOf(t *testing.T) {
	link := &model.LinkModuleParamsInput{LinkURL: "https://example.com", Description: ptr("docs"), ImageURL: ptr("")}
	text := &model.RichTextModuleParamsInput{Content: "hi"}
	assets := &model.AssetCollectionModuleParamsInput{AssetUrns: []string{"urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)"}}
	tree := &model.HierarchyViewModuleParamsInput{AssetUrns: []string{"urn:li:domain:d"}, ShowRelatedEntities: true}
	tests := []struct {
		name string
		typ  model.DataHubPageModuleType
		in   *model.PageModuleParamsInput
		want string // the stored params, or the error's message
	}{
		{"link", model.DataHubPageModuleTypeLink, &model.PageModuleParamsInput{LinkParams: link},
			`{"linkParams":{"linkUrl":"https://example.com","description":"docs"}}`},
		{"rich text", model.DataHubPageModuleTypeRichText, &model.PageModuleParamsInput{RichTextParams: text}, `{"richTextParams":{"content":"hi"}}`},
		{"asset collection", model.DataHubPageModuleTypeAssetCollection, &model.PageModuleParamsInput{AssetCollectionParams: assets},
			`{"assetCollectionParams":{"assetUrns":["urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)"]}}`},
		{"empty asset collection", model.DataHubPageModuleTypeAssetCollection, &model.PageModuleParamsInput{AssetCollectionParams: &model.AssetCollectionModuleParamsInput{}},
			`{"assetCollectionParams":{"assetUrns":[]}}`},
		{"hierarchy", model.DataHubPageModuleTypeHierarchy, &model.PageModuleParamsInput{HierarchyViewParams: tree},
			`{"hierarchyViewParams":{"assetUrns":["urn:li:domain:d"],"showRelatedEntities":true}}`},
		{"no params", model.DataHubPageModuleTypeLink, nil, "params.linkParams is required for a LINK module"},
		{"params of another type", model.DataHubPageModuleTypeLink, &model.PageModuleParamsInput{RichTextParams: text},
			"params.linkParams is required for a LINK module"},
		{"params of two types", model.DataHubPageModuleTypeRichText, &model.PageModuleParamsInput{RichTextParams: text, HierarchyViewParams: tree},
			"params.hierarchyViewParams is not for a RICH_TEXT module"},
		{"blank link", model.DataHubPageModuleTypeLink, &model.PageModuleParamsInput{LinkParams: &model.LinkModuleParamsInput{LinkURL: " "}},
			"params.linkParams.linkUrl must not be empty"},
		{"malformed asset", model.DataHubPageModuleTypeHierarchy, &model.PageModuleParamsInput{HierarchyViewParams: &model.HierarchyViewModuleParamsInput{AssetUrns: []string{"domain d"}}},
			"params.hierarchyViewParams.assetUrns[0]"},
		{"computed type", model.DataHubPageModuleTypeDomains, &model.PageModuleParamsInput{}, "a DOMAINS module cannot be created"},
		{"unknown type", model.DataHubPageModuleTypeUnknown, &model.PageModuleParamsInput{}, "a UNKNOWN module cannot be created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := moduleParamsOf(tt.typ, tt.in)
			if err != nil {
				if catalog.KindOf(err) != catalog.Invalid || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v (%v), want Invalid containing %q", err, catalog.KindOf(err), tt.want)
				}
				return
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("params = %s, want %s", b, tt.want)
			}
		})
	}
}
