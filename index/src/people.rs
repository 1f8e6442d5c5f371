//! People: face embeddings clustered by cosine similarity, incrementally: a face joins the
//! person whose centre it is closest to when that is close enough, else it starts a new one.
//! A person's centre is the normalised sum of its faces. Only embeddings from one embedder
//! model_id are ever compared (spec: two populations until re-indexed); the caller keeps one
//! `People` per embedder.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Person {
    pub id: i64,
    /// Unnormalised sum of member embeddings (each normalised).
    pub sum: Vec<f32>,
    pub faces: usize,
}

#[derive(Debug, Clone)]
pub struct People {
    pub embedder: String,
    pub people: Vec<Person>,
    /// Cosine similarity to a person's centre needed to join it.
    pub threshold: f32,
    next_id: i64,
}

fn normalised(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter().map(|x| x / n).collect()
    } else {
        v.to_vec()
    }
}

fn cosine_to_centre(e: &[f32], p: &Person) -> f32 {
    let n = p.sum.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n == 0.0 || p.sum.len() != e.len() {
        return -1.0;
    }
    e.iter().zip(&p.sum).map(|(a, b)| a * b).sum::<f32>() / n
}

impl People {
    /// `first_new_id`: where new people's ids start (after every embedder's people: ids are
    /// the catalog's).
    pub fn new(
        embedder: impl Into<String>,
        threshold: f32,
        people: Vec<Person>,
        first_new_id: i64,
    ) -> Self {
        let next_id = people
            .iter()
            .map(|p| p.id + 1)
            .max()
            .unwrap_or(1)
            .max(first_new_id);
        People {
            embedder: embedder.into(),
            people,
            threshold,
            next_id,
        }
    }

    /// The person this embedding belongs to (an existing one or a new one), and its id.
    pub fn assign(&mut self, embedding: &[f32]) -> i64 {
        let e = normalised(embedding);
        let best = self
            .people
            .iter_mut()
            .map(|p| (cosine_to_centre(&e, p), p))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match best {
            Some((sim, p)) if sim >= self.threshold => {
                p.sum.iter_mut().zip(&e).for_each(|(s, x)| *s += x);
                p.faces += 1;
                p.id
            }
            _ => {
                let id = self.next_id;
                self.next_id += 1;
                self.people.push(Person {
                    id,
                    sum: e,
                    faces: 1,
                });
                id
            }
        }
    }
}
