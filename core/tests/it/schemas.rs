//! Every tool schema is flat and closed, validates its own examples, and agrees with the
//! validator on them.

use answers_protocol::args::schema_for;
use answers_protocol::{ToolId, ToolSchema};
use serde_json::{Value, json};

/// Every schema declared so far.
fn schemas() -> Vec<&'static ToolSchema> {
    let all: Vec<&'static ToolSchema> = ToolId::ALL.iter().map(|t| schema_for(*t)).collect();
    // Precondition: the readings tool is declared.
    assert!(all.iter().any(|s| s.tool == ToolId::QueryHealthIndicators));
    all
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .expect("the schema compiles")
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect()
}

#[test]
fn each_schema_is_registered_under_its_own_tool() {
    for tool in ToolId::ALL {
        assert_eq!(schema_for(*tool).tool, *tool);
    }
}

#[test]
fn every_schema_validates_its_own_examples() {
    for schema in schemas() {
        let published = schema.json_schema();
        let v = validator(&published);
        let examples = published["examples"]
            .as_array()
            .expect("examples are published");
        assert_eq!(
            examples.len(),
            schema.examples.len(),
            "{}: an example is not JSON",
            schema.tool
        );
        assert!(!examples.is_empty());
        for example in examples {
            let errs = errors(&v, example);
            assert!(
                errs.is_empty(),
                "{}: {example} fails its schema: {errs:?}",
                schema.tool
            );
            let valid = schema.validate(example).unwrap_or_else(|e| {
                panic!(
                    "{}: {example} refused: {}",
                    schema.tool,
                    answers_protocol::render_compact(&e)
                )
            });
            assert_eq!(
                &valid.to_json(),
                example,
                "an example is already in strict form"
            );
        }
    }
}

#[test]
fn the_schema_refuses_what_it_should() {
    // Preconditions, so the examples test above cannot pass against a schema that accepts all.
    for schema in schemas() {
        let v = validator(&schema.json_schema());
        for bad in [
            json!({"kind": "medications"}),
            json!({"view": "daily"}),
            json!({"start": "2024-3-1"}),
            json!({"keywords": []}),
            json!({"indicators": "LDL"}),
            json!([]),
        ] {
            assert!(!v.is_valid(&bad), "{}: {bad} passes", schema.tool);
        }
    }
}

/// Keywords that would make a schema nested, open or conditional.
const FORBIDDEN: [&str; 11] = [
    "$ref",
    "$defs",
    "definitions",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
];

/// Walks a property's schema: scalars, or an array of scalars; no forbidden keyword anywhere.
fn assert_flat_value(path: &str, schema: &Value) {
    let obj = schema
        .as_object()
        .unwrap_or_else(|| panic!("{path}: not a schema object"));
    for key in obj.keys() {
        assert!(!FORBIDDEN.contains(&key.as_str()), "{path}: uses {key}");
    }
    match obj.get("type").and_then(Value::as_str) {
        Some("string" | "number" | "integer" | "boolean") => {
            assert!(
                !obj.contains_key("items") && !obj.contains_key("properties"),
                "{path}"
            );
        }
        Some("array") => {
            let items = obj
                .get("items")
                .unwrap_or_else(|| panic!("{path}: array without items"));
            assert_ne!(items["type"], "array", "{path}: nested array");
            assert_flat_value(&format!("{path}.items"), items);
        }
        other => panic!("{path}: type {other:?} is not flat"),
    }
    if let Some(values) = obj.get("enum") {
        assert!(
            values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string)),
            "{path}"
        );
    }
}

#[test]
fn every_schema_is_flat_and_closed() {
    for schema in schemas() {
        let published = schema.json_schema();
        let top = published.as_object().unwrap();
        for key in top.keys() {
            assert!(
                !FORBIDDEN.contains(&key.as_str()),
                "{}: uses {key}",
                schema.tool
            );
        }
        assert_eq!(top["type"], "object");
        assert_eq!(top["additionalProperties"], false, "{}: open", schema.tool);
        let properties = top["properties"].as_object().unwrap();
        assert_eq!(properties.len(), schema.params.len());
        for (name, property) in properties {
            assert_flat_value(&format!("{}.{name}", schema.tool), property);
            assert!(property["description"].is_string(), "{name}: undocumented");
        }
        for required in top["required"].as_array().unwrap() {
            assert!(properties.contains_key(required.as_str().unwrap()));
        }
    }
}

#[test]
fn the_view_enum_is_inline_and_complete() {
    let published = schema_for(ToolId::QueryHealthIndicators).json_schema();
    assert_eq!(
        published["properties"]["view"]["enum"],
        json!(answers_protocol::View::VARIANTS)
    );
}
